"""Badly formatted code that works."""
from os import path
import json
import re


def load(name) :
    with open(path.join("data",name)) as f:
        return json.load( f )


def slug(text):
    return re.sub(r"[^a-z]+",'-',text.lower()).strip('-')
