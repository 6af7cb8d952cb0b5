// A user's own copy of @agentv/sdk: it must be used instead of agentv's.
export function definePromptTemplate() {
  console.log('USER-SDK4 esm');
}
export const defineAssertion = definePromptTemplate;
export const defineCodeGrader = definePromptTemplate;
