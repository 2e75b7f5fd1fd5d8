#!/bin/sh
# Test dependencies installed from Debian (ripgrep drives Grep when present).
set -e
command -v rg || (apt-get update -qq && apt-get install -y -qq ripgrep)
