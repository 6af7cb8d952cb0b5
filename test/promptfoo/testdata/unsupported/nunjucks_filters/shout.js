module.exports = (s) => String(s).toUpperCase();
