# agentv/action image: the static agentv binary plus the runtimes that user judges and
# prompt templates need — Node.js 24 with tsx, bun, and python3.
#
# No "# syntax=" directive: it makes BuildKit pull a frontend image at build time, and the
# built-in frontend (Docker >= 20.10 with BuildKit) handles everything here, RUN --mount
# included. Base images are build args so a mirror or a pinned digest can replace them:
#   docker build --build-arg NODE_IMAGE=node:24-bookworm-slim@sha256:<digest> .
ARG GO_IMAGE=golang:1.26-bookworm
ARG NODE_IMAGE=node:24-bookworm-slim

# The build stage runs on the build machine's platform and cross-compiles, so a
# multi-platform release does not compile Go under emulation. (dockerfilelint 1.8 predates
# FROM --platform and reports a missing tag on the next line; BuildKit's own linter and
# dockerfile-utils are clean.)
FROM --platform=$BUILDPLATFORM ${GO_IMAGE} AS build
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags="-s -w -X main.Version=${VERSION}" -o /out/agentv ./cmd/agentv

FROM ${NODE_IMAGE} AS runtime
ARG TARGETARCH
ARG TSX_VERSION=4.23.15
ARG BUN_VERSION=1.4.4
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# bun comes from its per-platform npm package, which already holds the real binary, so
# its postinstall script is not needed (--ignore-scripts).
RUN arch=${TARGETARCH:-$(dpkg --print-architecture)} \
 && case "$arch" in \
      amd64) bun_pkg=@oven/bun-linux-x64 ;; \
      arm64) bun_pkg=@oven/bun-linux-aarch64 ;; \
      *) echo "no bun build for $arch" >&2; exit 1 ;; \
    esac \
 && npm install --global --no-fund --no-audit "tsx@${TSX_VERSION}" \
 && tmp=$(mktemp -d) \
 && npm install --prefix "$tmp" --ignore-scripts --no-fund --no-audit "${bun_pkg}@${BUN_VERSION}" \
 && install -m 0755 "$tmp/node_modules/${bun_pkg}/bin/bun" /usr/local/bin/bun \
 && rm -rf "$tmp" \
 && npm cache clean --force \
 && bun --version && tsx --version && python3 --version
# The @agentv/eval SDK (sdk/js) is embedded in the binary, which makes it resolvable for
# user scripts at run time, so nothing is installed for it here.
COPY --from=build /out/agentv /usr/local/bin/agentv
# No USER: GitHub runs container actions as root, and a non-root user cannot write the
# bind-mounted workspace. No WORKDIR: the runner passes --workdir /github/workspace, so
# the entrypoint is an absolute path.
ENTRYPOINT ["/usr/local/bin/agentv"]
