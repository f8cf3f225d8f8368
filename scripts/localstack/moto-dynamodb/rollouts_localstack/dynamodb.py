"""DynamoDB for LocalStack without DynamoDB Local: every operation falls through to moto.

LocalStack's own DynamoDB providers (default and v2) forward each request to DynamoDB Local, which
needs a Java download that cannot happen here, and a jar we may not fetch. moto, which LocalStack
bundles and already uses for many services, implements tables, GSIs/LSIs, conditional writes,
transactions, TTL and tags, which is what the product's stack and the AWS SDK tests need.
Selected with PROVIDER_OVERRIDE_DYNAMODB=moto.

One gap is filled here: moto's table descriptions have no TableId, which real DynamoDB returns and
LocalStack's CloudFormation provider for AWS::DynamoDB::GlobalTable (CDK's TableV2) reads.
"""

import uuid

from localstack.aws.api import RequestContext, handler
from localstack.aws.api.dynamodb import DynamodbApi
from localstack.services.moto import call_moto
from localstack.services.plugins import Service, aws_provider
from localstack.state import StateVisitor


def _with_table_id(description):
    """Adds a TableId derived from the table's ARN, so every call reports the same id for one table."""
    if description and description.get("TableArn") and not description.get("TableId"):
        description["TableId"] = str(uuid.uuid5(uuid.NAMESPACE_URL, description["TableArn"]))
    return description


class MotoDynamoDBProvider(DynamodbApi):
    """Implements no operation itself (MotoFallbackDispatcher sends each to moto) except to add TableId."""

    def accept_state_visitor(self, visitor: StateVisitor):
        # Lets LocalStack's state reset (/_localstack/state/reset) reach the moto backend.
        from moto.dynamodb.models import dynamodb_backends

        visitor.visit(dynamodb_backends)

    @handler("CreateTable", expand=False)
    def create_table(self, context: RequestContext, create_table_input):
        response = call_moto(context)
        _with_table_id(response.get("TableDescription"))
        return response

    @handler("DescribeTable", expand=False)
    def describe_table(self, context: RequestContext, describe_table_input):
        response = call_moto(context)
        _with_table_id(response.get("Table"))
        return response

    @handler("UpdateTable", expand=False)
    def update_table(self, context: RequestContext, update_table_input):
        response = call_moto(context)
        _with_table_id(response.get("TableDescription"))
        return response

    @handler("DeleteTable", expand=False)
    def delete_table(self, context: RequestContext, delete_table_input):
        response = call_moto(context)
        _with_table_id(response.get("TableDescription"))
        return response


@aws_provider(api="dynamodb", name="moto")
def dynamodb_moto():
    from localstack.services.moto import MotoFallbackDispatcher

    return Service.for_provider(MotoDynamoDBProvider(), dispatch_table_factory=MotoFallbackDispatcher)
