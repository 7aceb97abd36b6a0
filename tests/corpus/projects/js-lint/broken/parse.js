function parse(text) {
  const fields = text.split(",");
  return { name: fields[0], price: Number(fields[1]) ;
}

module.exports = { parse };
