#!/bin/bash
# Prints the environment of a deployment.
export BUILD_ID=$(git rev-parse --short HEAD)
echo "build $BUILD_ID"
