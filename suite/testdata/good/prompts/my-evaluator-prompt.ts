import { definePromptTemplate } from "@agentv/eval";
export default definePromptTemplate((ctx) => `Q: ${ctx.question}`);
