// Output transform from a file: keeps the text after the first colon.
module.exports = (output, context) => {
  const i = output.indexOf(':');
  return i < 0 ? output : output.slice(i + 1).trim();
};
