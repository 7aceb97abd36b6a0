"""Models."""
from dataclasses import dataclass


@dataclass
class User:
    name: str
    age: int


def make() -> User:
    return User(name="ada")


def older(u: User) -> int:
    return u.age + "1"
