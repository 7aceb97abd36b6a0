const users = { 1: { id: 1, name: "Ada" } };

function findUser(id) {
  const user = users[id];
  if (!user) {
    throw new Error(`user ${id} not found`);
  }
  return user;
}

module.exports = { findUser };
