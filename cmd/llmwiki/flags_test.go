package main

import "flag"

var updateReadme = flag.Bool("update", false, "rewrite generated sections of README.md")
