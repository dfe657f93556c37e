# Your project in an image: idx with the project built into /project, for Kubernetes
# (deploy/kubernetes) or wherever mounting a folder is awkward. Build the idx image first, then,
# from your project's folder (a .dockerignore there keeping out node_modules/.idx-data is wise):
#   docker build -f docker/Dockerfile -t idx:local <idx checkout>
#   docker build -f <idx checkout>/docker/project.Dockerfile -t my-indexer .
ARG IDX_IMAGE=idx:local
FROM ${IDX_IMAGE}
COPY --chown=node:node . /project
WORKDIR /project
# .idx-data made here, owned by node: a new named volume mounted there (the embedded database) starts so.
RUN idx codegen && idx build && mkdir -p .idx-data
