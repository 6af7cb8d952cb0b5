import { definePromptTemplate } from '@agentv/sdk';

export default definePromptTemplate((ctx) => `Grade this answer: ${ctx.output}\nAgainst: ${ctx.criteria}`);
