# The sandbox snapshot: the agent at a fixed path, a non-root user, and the
# agent's state folder on the sandbox disk.
#
#   docker build --build-arg AGENT_BUILD_REVISION=$(git rev-parse --short=12 HEAD) \
#       -t agent-sandbox .
#   docker run --rm -it -e AGENT_API_URL=... -e AGENT_API_KEY=... agent-sandbox \
#       agent --prompt "..." --work-dir /home/agent/workspace

# Builder: the fully static binary (scripts/build-dist.sh).
FROM rust:1.95-bookworm AS builder
# .git stays out of the context: pass the revision for `agent --version`,
# e.g. --build-arg AGENT_BUILD_REVISION=$(git rev-parse --short=12 HEAD).
ARG AGENT_BUILD_REVISION=unknown
WORKDIR /src
COPY . .
RUN scripts/build-dist.sh

# The sandbox: a common base with what the agent's tools use (bash, git,
# ripgrep for people, ca-certificates for the user's own tools; the agent
# itself carries its CA roots).
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bash ca-certificates git ripgrep procps \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --shell /bin/bash agent
# The state folder sits where only root can create entries around it: the
# Landlock ruleset that keeps commands out of it then takes nothing away
# from them (docs/protocol.md, "Commands and the kernel").
ENV AGENT_STATE_DIR=/var/lib/agent
RUN install -d -o agent -g agent -m 700 "$AGENT_STATE_DIR"
COPY --from=builder /src/dist/agent /usr/local/bin/agent
USER agent
RUN mkdir -p /home/agent/workspace
WORKDIR /home/agent/workspace
# Check at build time that the binary runs.
RUN agent --version
CMD ["agent", "--help"]
