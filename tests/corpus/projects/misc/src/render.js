function render(page) {
  return page.title.toUpperCase();
}

module.exports = { render };
