// The portal's header above the API reference, built with DOM calls (no markup strings): the CSP allows no inline code.
(function () {
  var header = document.createElement('header');
  header.className = 'topbar portal';
  var brand = document.createElement('a');
  brand.className = 'brand';
  brand.href = '/portal/';
  var logo = document.createElement('span');
  logo.className = 'logo';
  logo.setAttribute('aria-hidden', 'true');
  var small = document.createElement('small');
  small.textContent = 'developer portal';
  brand.append(logo, 'QR Manager ', small);
  var nav = document.createElement('nav');
  nav.setAttribute('aria-label', 'Portal');
  [
    ['/portal/', 'Portal'],
    ['/docs', 'API reference'],
    ['/portal/docs/', 'Guides'],
  ].forEach(function (link) {
    var a = document.createElement('a');
    a.href = link[0];
    a.textContent = link[1];
    if (link[0] === '/docs') a.setAttribute('aria-current', 'page');
    nav.append(a);
  });
  header.append(brand, nav);
  document.body.prepend(header);
  var ui = document.getElementById('swagger-ui');
  if (ui) {
    var main = document.createElement('main');
    ui.replaceWith(main);
    main.append(ui);
  }
})();
