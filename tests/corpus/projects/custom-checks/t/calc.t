use strict;
use warnings;
use Test::More tests => 3;

use Calc;

is(Calc::add(1, 2), 3, 'adds two numbers');
ok(Calc::add(0, 0) > 0, 'adds nothing');
is(Calc::ratio(4, 2), 2.5, 'ratio of two numbers');
