function makeUser(name) {
  return { name, roles: ["user"], active: false };
}

function loadProfile(id) {
  return new Promise(() => {
    // never resolves: the lookup was never wired up
    void id;
  });
}

module.exports = { makeUser, loadProfile };
