import { definePromptTemplate } from '@agentv/sdk';

export default definePromptTemplate(async (ctx) => `Criteria: ${ctx.criteria}\nAnswer: ${ctx.output}`);
