const { render } = require("./render");

module.exports = { main: () => render(null) };
