// The AWS identity and region every emulated call uses. LocalStack derives the account from the
// access key id (a 12-digit id is that account; any other, like "test", is 000000000000), so
// another account's calls are made with another 12-digit access key id (crossAccount.ts).
export const TEST_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };
export const TEST_REGION = 'us-east-1';
/** The account of TEST_CREDENTIALS in LocalStack. */
export const TEST_ACCOUNT = '000000000000';
