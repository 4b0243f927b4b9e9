# syntax=docker/dockerfile:1
FROM python:3.11-slim AS build
WORKDIR /src
RUN apt-get update && apt-get install -y --no-install-recommends gcc libxml2-dev libxslt1-dev \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml constraints.txt README.md ./
COPY service ./service
RUN python -m venv /opt/plainfeed \
    && /opt/plainfeed/bin/pip install --no-cache-dir --upgrade pip \
    && /opt/plainfeed/bin/pip install --no-cache-dir -c constraints.txt .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 plainfeed
COPY --from=build /opt/plainfeed /opt/plainfeed
COPY prompts /app/prompts
WORKDIR /app
ENV PATH=/opt/plainfeed/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PLAINFEED_PROMPTS_DIR=/app/prompts \
    PLAINFEED_DATABASE_URL=sqlite:////app/data/plainfeed.db \
    PLAINFEED_LOG_FORMAT=json
RUN mkdir -p /app/data && chown plainfeed /app/data
USER plainfeed
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
  CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status == 200 else 1)"
CMD ["plainfeed", "serve", "--host", "0.0.0.0", "--port", "8000"]
