// Lambda Function URL (payload 2.0, IAM auth) ↔ the API core's transport-independent request and
// response. The size limit is checked on the encoded body, before a base64 body is even decoded.
import type { LambdaFunctionURLEventWithIAMAuthorizer, LambdaFunctionURLResult } from 'aws-lambda';
import { HttpError, errorResponse } from '../../shared/api/httpError.ts';
import type { ApiRequest, ApiResponse } from '../../shared/api/types.ts';

/** The request for handleApiRequest, or the response when the body is already too large. */
export function toApiRequest(event: LambdaFunctionURLEventWithIAMAuthorizer, maxBodyBytes: number): ApiRequest | ApiResponse {
  let body = event.body;
  if (body !== undefined && event.isBase64Encoded) {
    // Buffer.byteLength(…, 'base64') computes the decoded size without decoding.
    const size = Buffer.byteLength(body, 'base64');
    if (size > maxBodyBytes) return errorResponse(new HttpError(413, `request body is ${size} bytes; the limit is ${maxBodyBytes}`)).response;
    body = Buffer.from(body, 'base64').toString('utf8');
  }
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.queryStringParameters ?? {})) if (v !== undefined) query[k] = v;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
  return {
    method: event.requestContext.http.method,
    path: event.rawPath,
    query,
    headers,
    body,
    // IAM auth: AWS verified the signature; the caller is the signing principal.
    principal: event.requestContext.authorizer?.iam?.userArn ?? 'unknown',
  };
}

export function toFunctionUrlResult(res: ApiResponse): LambdaFunctionURLResult {
  return { statusCode: res.status, headers: res.headers, body: res.body, isBase64Encoded: false };
}

export function isApiResponse(v: ApiRequest | ApiResponse): v is ApiResponse {
  return 'status' in v;
}
