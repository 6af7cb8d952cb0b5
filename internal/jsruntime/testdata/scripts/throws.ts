import { definePromptTemplate } from '@agentv/eval';

export default definePromptTemplate((): string => {
  throw new Error('rubric file missing: rubric.md');
});
