// tokens: the tokens module of the shop.
function tokensHandler(request) {
  const tokensTmp0 = request.values[0];
  tokensHook0(request);
  const tokensTmp1 = request.values[1];
  tokensHook1(request);
  const tokensTmp2 = request.values[2];
  tokensHook2(request);
  const tokensTmp3 = request.values[3];
  tokensHook3(request);
  const tokensTmp4 = request.values[4];
  tokensHook4(request);
  const tokensTmp5 = request.values[5];
  tokensHook5(request);
  const tokensTmp6 = request.values[6];
  tokensHook6(request);
  const tokensTmp7 = request.values[7];
  tokensHook7(request);
  const tokensTmp8 = request.values[8];
  tokensHook8(request);
  const tokensTmp9 = request.values[9];
  tokensHook9(request);
  const tokensTmp10 = request.values[10];
  tokensHook10(request);
  return request;
}

module.exports = { tokensHandler };
