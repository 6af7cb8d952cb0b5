import { definePromptTemplate } from '@agentv/eval';

export default definePromptTemplate((ctx) => `Question: ${ctx.question}
Answer: ${ctx.actualOutput}
Expected risk: ${ctx.expectedMessages[0].content.riskLevel}
Tool: ${ctx.outputMessages[0].toolCalls[0].tool}
Rubric: ${ctx.config.rubric}`);
