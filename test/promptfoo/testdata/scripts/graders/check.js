// Default export: a number, the share of the expected words found.
module.exports = (output, context) => {
  const words = String(context.vars.expect || '').split(' ').filter(Boolean);
  if (words.length === 0) return 0;
  return words.filter((w) => output.includes(w)).length / words.length;
};

// Named export returning a GradingResult object.
module.exports.verdict = (output) => ({
  pass: output.length < 20,
  score: output.length < 20 ? 0.6 : 0.1,
  reason: `length ${output.length}`,
});

// Named export returning a boolean.
module.exports.hasDigit = (output) => /[0-9]/.test(output);
