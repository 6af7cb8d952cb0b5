import { definePromptTemplate } from '@agentv/eval';

const later = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export default definePromptTemplate(async (ctx) => {
  await later(5);
  return `Reference: ${ctx.referenceAnswer ?? 'none'}\nGuidelines: ${ctx.guidelineFiles.join(', ')}\nTokens: ${ctx.traceSummary?.tokenUsage?.input}`;
});
