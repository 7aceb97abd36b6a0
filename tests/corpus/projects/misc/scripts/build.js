const { main } = require("../src/index");

console.log(main());
