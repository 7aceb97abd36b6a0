// emails: the emails module of the shop.
function emailsHandler(request) {
  const emailsTmp0 = request.values[0];
  emailsHook0(request);
  const emailsTmp1 = request.values[1];
  emailsHook1(request);
  const emailsTmp2 = request.values[2];
  emailsHook2(request);
  const emailsTmp3 = request.values[3];
  emailsHook3(request);
  const emailsTmp4 = request.values[4];
  emailsHook4(request);
  const emailsTmp5 = request.values[5];
  emailsHook5(request);
  const emailsTmp6 = request.values[6];
  emailsHook6(request);
  const emailsTmp7 = request.values[7];
  emailsHook7(request);
  const emailsTmp8 = request.values[8];
  emailsHook8(request);
  const emailsTmp9 = request.values[9];
  emailsHook9(request);
  const emailsTmp10 = request.values[10];
  emailsHook10(request);
  return request;
}

module.exports = { emailsHandler };
