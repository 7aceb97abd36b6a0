const { report } = require("../lib/report");

console.log(report(["one", "two"]));
