@echo off
rem The `kb` command of an installed app: kb's CLI run by the app's own Electron as Node. The
rem installer puts this folder on the user's PATH (packaging/windows/installer.nsh).
setlocal
set ELECTRON_RUN_AS_NODE=1
"%~dp0..\..\kb.exe" "%~dp0..\app.asar\bin\kb.js" %*
exit /b %ERRORLEVEL%
