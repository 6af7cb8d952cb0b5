// A code judge that calls its target proxy through the SDK's target client.
import { defineCodeJudge, createTargetClient, TargetProxyError } from '@agentv/eval';

export default defineCodeJudge(async ({ candidateAnswer, config }) => {
  const target = createTargetClient();
  const info = await target.info();
  const judge = await target.invoke({ question: `Grade: ${candidateAnswer}`, systemPrompt: 'be brief' });
  const agent = await target.invoke({ question: 'Again?', target: config.target_name });
  let refused = 0;
  try {
    await target.invoke({ question: 'One too many' });
  } catch (err) {
    if (err instanceof TargetProxyError) refused = err.status;
  }
  return {
    score: 1,
    details: { url: process.env.AGENTV_TARGET_PROXY_URL, info, answers: [judge.rawText, agent.rawText], messages: judge.outputMessages, refused },
  };
});
