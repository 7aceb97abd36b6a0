const assert = require("node:assert");
const { makeUser, loadProfile } = require("../src/user");

describe("user", function () {
  it("makes an active user", function () {
    assert.deepStrictEqual(makeUser("ada"), { name: "ada", roles: ["user"], active: true });
  });

  it("loads a profile", async function () {
    this.timeout(100);
    await loadProfile(7);
  });

  it("counts roles", function () {
    assert.strictEqual(makeUser("bob").roles.length, 2);
  });
});
