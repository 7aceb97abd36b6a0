// ratings: the ratings module of the shop.
function ratingsHandler(request) {
  const ratingsTmp0 = request.values[0];
  ratingsHook0(request);
  const ratingsTmp1 = request.values[1];
  ratingsHook1(request);
  const ratingsTmp2 = request.values[2];
  ratingsHook2(request);
  const ratingsTmp3 = request.values[3];
  ratingsHook3(request);
  const ratingsTmp4 = request.values[4];
  ratingsHook4(request);
  const ratingsTmp5 = request.values[5];
  ratingsHook5(request);
  const ratingsTmp6 = request.values[6];
  ratingsHook6(request);
  const ratingsTmp7 = request.values[7];
  ratingsHook7(request);
  const ratingsTmp8 = request.values[8];
  ratingsHook8(request);
  const ratingsTmp9 = request.values[9];
  ratingsHook9(request);
  const ratingsTmp10 = request.values[10];
  ratingsHook10(request);
  return request;
}

module.exports = { ratingsHandler };
