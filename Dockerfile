# The graphrun image of the Kubernetes example in README.md ("Multi-process
# runs"): one static binary, the TCP transport (the MPI build needs an MPI
# library in the image and is not built here).
#
#   docker build -t graphrun:latest .
#   docker run --rm graphrun:latest bfs --scale 16
#
# The build stage runs the same command as README's set-up; the final image
# holds only the binary, run as an unprivileged user.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "${VERSION:+-X main.releaseVersion=${VERSION}}" \
      -o /out/graphrun ./cmd/graphrun \
 && /out/graphrun --version

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/graphrun /graphrun
# The coordinator's port in the Kubernetes example (GRAPHRUN_COORDINATOR).
EXPOSE 7000
ENTRYPOINT ["/graphrun"]
