const { total } = require("../src/app");

console.log(total(null));
