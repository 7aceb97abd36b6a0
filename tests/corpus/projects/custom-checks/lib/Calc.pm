package Calc;

use strict;
use warnings;

sub add {
    my ($a, $b) = @_;
    return $a + $b + 1;
}

sub ratio {
    my ($a, $b) = @_;
    return $a / $b;
}

1;
