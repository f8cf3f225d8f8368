"""DynamoDB for LocalStack without DynamoDB Local: every operation falls through to moto.

LocalStack's own DynamoDB providers (default and v2) forward each request to DynamoDB Local, which
needs a Java download that cannot happen here, and a jar we may not fetch. moto, which LocalStack
bundles and already uses for many services, implements tables, GSIs/LSIs, conditional writes,
transactions, TTL and tags, which is what the product's stack and the AWS SDK tests need.
Selected with PROVIDER_OVERRIDE_DYNAMODB=moto.

One gap is filled here: moto's table descriptions have no TableId, which real DynamoDB returns and
LocalStack's CloudFormation provider for AWS::DynamoDB::GlobalTable (CDK's TableV2) reads.
"""

import re
import uuid

from localstack.aws.api import RequestContext, handler
from localstack.aws.api.dynamodb import DynamodbApi
from localstack.services.moto import call_moto
from localstack.services.plugins import Service, aws_provider
from localstack.state import StateVisitor


def _through_moto(operation, description_key):
    """A handler for `operation` that calls moto and adds a TableId derived from the table's ARN
    to the description under `description_key`, so every call reports the same id for one table."""

    def call(self, context: RequestContext, request):
        response = call_moto(context)
        description = response.get(description_key)
        if description and description.get("TableArn") and not description.get("TableId"):
            description["TableId"] = str(uuid.uuid5(uuid.NAMESPACE_URL, description["TableArn"]))
        return response

    # LocalStack's dispatcher calls a handler by its function name: CreateTable -> create_table.
    call.__name__ = re.sub(r"(?<!^)(?=[A-Z])", "_", operation).lower()
    return handler(operation, expand=False)(call)


class MotoDynamoDBProvider(DynamodbApi):
    """Implements no operation itself (MotoFallbackDispatcher sends each to moto) except to add TableId."""

    def accept_state_visitor(self, visitor: StateVisitor):
        # Lets LocalStack's state reset (/_localstack/state/reset) reach the moto backend.
        from moto.dynamodb.models import dynamodb_backends

        visitor.visit(dynamodb_backends)

    create_table = _through_moto("CreateTable", "TableDescription")
    describe_table = _through_moto("DescribeTable", "Table")
    update_table = _through_moto("UpdateTable", "TableDescription")
    delete_table = _through_moto("DeleteTable", "TableDescription")


@aws_provider(api="dynamodb", name="moto")
def dynamodb_moto():
    from localstack.services.moto import MotoFallbackDispatcher

    return Service.for_provider(MotoDynamoDBProvider(), dispatch_table_factory=MotoFallbackDispatcher)
