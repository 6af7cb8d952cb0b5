// A file transform: the value of the output's "answer" field, or the output
// itself when it is not JSON.
module.exports = function answerField(output) {
  try {
    return String(JSON.parse(output).answer);
  } catch {
    return output;
  }
};
