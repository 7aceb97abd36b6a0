#!/bin/sh
# the unit tests, as JUnit XML for the CI
exec npx vitest run --reporter=junit
