module github.com/botix/public-api/sdk/go

go 1.23

require github.com/google/uuid v1.6.0
