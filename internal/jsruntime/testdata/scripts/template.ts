import { definePromptTemplate, type PromptTemplateInput } from '@agentv/eval';

interface RiskContent {
  riskLevel?: string;
}

function expectedRisk(ctx: PromptTemplateInput): string {
  const content = ctx.expectedOutput[0]?.content as RiskContent | undefined;
  return content?.riskLevel ?? 'unknown';
}

export default definePromptTemplate((ctx) => `Question: ${ctx.question}
Answer: ${ctx.candidateAnswer}
Expected risk: ${expectedRisk(ctx)}
Tool: ${ctx.outputMessages?.[0]?.toolCalls?.[0]?.tool}
Rubric: ${ctx.config?.rubric}`);
