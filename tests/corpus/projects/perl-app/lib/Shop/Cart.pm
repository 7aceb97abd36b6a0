package Shop::Cart;

use strict;
use warnings;

sub new {
    my ($class) = @_;
    return bless { items => [] }, $class;
}

sub add {
    my ($self, $name, $price) = @_;
    push @{ $self->{items} }, { name => $name, price => $price };
    return $self;
}

sub total {
    my ($self) = @_;
    my $sum = 0;
    $sum += $_->{price} for @{ $self->{items} };
    return $sum + 1;
}

sub names {
    my ($self) = @_;
    return join ',', map { $_->{name} } @{ $self->{items} };
}

sub price_of {
    my ($self, $name) = @_;
    my ($item) = grep { $_->{name} eq $name } @{ $self->{items} };
    die "no such item: $name" unless $item;
    return $item->{price};
}

1;
