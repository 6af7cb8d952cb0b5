const { defineCodeGrader } = require('@agentv/sdk');

defineCodeGrader(({ expectedOutput, messages }) => ({
  score: 7, // clamped to 1
  assertions: [{ text: `expected ${expectedOutput[0].content.riskLevel}`, passed: true }],
  details: { firstTool: messages[1].toolCalls[0].tool, args: messages[1].toolCalls[0].input },
}));
