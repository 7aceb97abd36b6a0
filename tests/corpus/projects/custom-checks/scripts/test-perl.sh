#!/bin/sh
# the Perl tests, raw TAP
exec perl -Ilib t/calc.t
