// A TypeScript prompt template (run, not read): the judge mock scores whatever it gets.
import { definePromptTemplate } from '@agentv/eval';

export default definePromptTemplate((ctx) => `Does this answer name Paris?\n\n${ctx.candidateAnswer}\n`);
