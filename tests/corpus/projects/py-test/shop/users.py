"""User lookups."""

USERS = {"ada": "Ada Lovelace", "grace": "Grace Hopper"}


def full_name(login):
    return USERS[login]


def initials(login):
    first, last = full_name(login).split(" ")
    return first[0] + last[0]
