// A user's own copy of @agentv/eval: it must be used instead of agentv's.
export function definePromptTemplate() {
  console.log('USER-SDK esm');
}
export const defineCodeJudge = definePromptTemplate;
