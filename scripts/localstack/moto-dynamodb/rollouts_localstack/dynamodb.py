"""DynamoDB for LocalStack without DynamoDB Local: every operation falls through to moto.

LocalStack's own DynamoDB providers (default and v2) forward each request to DynamoDB Local, which
needs a Java download that cannot happen here, and a jar we may not fetch. moto, which LocalStack
bundles and already uses for many services, implements tables, GSIs/LSIs, conditional writes,
transactions, TTL and tags, which is what the product's stack and the AWS SDK tests need.
Selected with PROVIDER_OVERRIDE_DYNAMODB=moto.
"""

from localstack.aws.api.dynamodb import DynamodbApi
from localstack.services.plugins import Service, aws_provider
from localstack.state import StateVisitor


class MotoDynamoDBProvider(DynamodbApi):
    """Implements no operation itself, so MotoFallbackDispatcher sends each one to moto."""

    def accept_state_visitor(self, visitor: StateVisitor):
        # Lets LocalStack's state reset (/_localstack/state/reset) reach the moto backend.
        from moto.dynamodb.models import dynamodb_backends

        visitor.visit(dynamodb_backends)


@aws_provider(api="dynamodb", name="moto")
def dynamodb_moto():
    from localstack.services.moto import MotoFallbackDispatcher

    return Service.for_provider(MotoDynamoDBProvider(), dispatch_table_factory=MotoFallbackDispatcher)
