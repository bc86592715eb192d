module github.com/memscope/memscope/scripts/tracewait

go 1.26.0

require golang.org/x/exp v0.0.0-20261014143641-f0251eb4aa3e
