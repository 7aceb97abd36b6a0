package Stock;

use strict;
use warnings;

sub new { return bless { levels => {} }, shift }

sub restock {
    my ($self, $code, $qty) = @_;
    $self->{levels}{$code} += $qty;
    return $self;
}

sub codes {
    my ($self) = @_;
    return [ reverse sort keys %{ $self->{levels} } ];
}

sub label {
    my ($self, $code) = @_;
    return "code $code";
}

1;
