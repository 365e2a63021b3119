# The conformance runner: its static musl binary on an empty base. Built by
# .github/workflows/release.yml from the release's binaries (dist/), for
# linux/amd64 and linux/arm64.
#
#   docker run --rm -v "$PWD:/work" ghcr.io/OWNER/conformance:v0.2.0 --profile profile.yaml
#
# No certificate store inside: HTTPS to a public CA needs one mounted
# (-v /etc/ssl/certs:/etc/ssl/certs:ro) or --ca-cert FILE.
FROM scratch
ARG TARGETARCH
COPY --chmod=0755 dist/${TARGETARCH}/conformance /conformance
USER 65534:65534
WORKDIR /work
ENTRYPOINT ["/conformance"]
