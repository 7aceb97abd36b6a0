function slugify(title) {
  return title.toLowerCase().replace(/ /g, "_");
}

function words(text) {
  return text.split(/\s+/).length;
}

module.exports = { slugify, words };
