#!/bin/sh
target=$1
cp -r data $target
