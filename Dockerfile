# Eddy server image.
#   docker build -t eddy .
#   docker run -p 6875:6875 -v eddy-data:/data eddy
#   psql "postgres://eddy@localhost:6875/eddy"

FROM golang:1.26-trixie AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# pg_query_go is cgo: the builder image has gcc.
RUN CGO_ENABLED=1 go build -trimpath -ldflags="-s -w" -o /out/eddy ./cmd/eddy

FROM debian:trixie-slim
RUN useradd --system --uid 10001 --user-group --no-create-home eddy \
 && mkdir -p /data && chown eddy:eddy /data
COPY --from=build /out/eddy /usr/local/bin/eddy
USER eddy
EXPOSE 6875
VOLUME /data
ENTRYPOINT ["eddy", "--listen", "0.0.0.0:6875", "--data-dir", "/data"]
