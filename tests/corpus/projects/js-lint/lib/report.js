function report(lines) {
  const parts = [];
  for (var i = 0; i < lines.length; i++) {
    parts.push(String(i + 1) + ". " + lines[i]);
  }
  return output;
}

module.exports = { report };
