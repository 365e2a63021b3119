# The reference server: its static musl binary on an empty base. Built by
# .github/workflows/release.yml from the release's binaries (dist/), for
# linux/amd64 and linux/arm64.
#
#   docker run --rm -p 8080:8080 ghcr.io/OWNER/reference-server:v0.2.0
#
# Listens on every interface of the container (its own default is
# 127.0.0.1, unreachable from outside one), port 8080.
FROM scratch
ARG TARGETARCH
COPY --chmod=0755 dist/${TARGETARCH}/reference-server /reference-server
USER 65534:65534
EXPOSE 8080
ENTRYPOINT ["/reference-server"]
CMD ["--host", "0.0.0.0", "--port", "8080"]
