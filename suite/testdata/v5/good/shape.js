// A transform module: the default export and a named one.
module.exports = (output) => String(output).trim();
module.exports.firstWord = (output) => String(output).split(' ')[0];
