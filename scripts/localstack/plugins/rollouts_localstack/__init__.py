"""LocalStack plugins of the serverless-rollouts test bed."""
